(defn EllisFinch [hist score]
  (while True (setv hist hist)))  ; thinks forever
