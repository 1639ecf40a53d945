;; the function is spelled differently from the file
(defn BaumCale [hist score] ["C" "C" "C"])
