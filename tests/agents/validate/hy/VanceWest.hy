(defn VanceWest [hist score]
  ["C" "C"
