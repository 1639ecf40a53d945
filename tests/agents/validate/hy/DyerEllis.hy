(setv rate (/ 1 0))

(defn DyerEllis [hist score] ["C" "C" "C"])
