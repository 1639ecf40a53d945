(defn WestYoung [hist score] ["C" :X "D"])
