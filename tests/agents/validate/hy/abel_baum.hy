(defn abel_baum [hist score] ["C" "C" "C"])
