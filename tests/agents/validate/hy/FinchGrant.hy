(defn FinchGrant [hist score]
  ;; the first call's hist is empty: (get hist -1) raises IndexError
  (* [(get (get hist -1) 1)] 3))
