(defn Keywords [hist score]
  (if hist '(:C :d c) [:C :C :C]))
