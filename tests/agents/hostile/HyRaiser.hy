;; Hostile: raises on every call, SystemExit on alternate ones.
(defn HyRaiser [hist score]
  (if (% (// (len hist) 3) 2)
      (raise (SystemExit 3))
      (raise (RuntimeError "hostile Hy agent raising on purpose"))))
