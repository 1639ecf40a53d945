(defn helper [hist score] ["C" "C" "C"])
