(defn TateUpton [hist score] ["C" "C" "C"])
