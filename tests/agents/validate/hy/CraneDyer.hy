(defn CraneDyer [hist score] ["C" "C" "C"])

(defn Grudge [hist score] ["D" "D" "D"])
