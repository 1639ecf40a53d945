;; Reads fine, but does not compile: Hy refuses to assign to a constant (line 5).
(defn BadAssign [hist score]
  (setv moves ["C" "C" "C"])
  (when hist
    (setv 1 2))
  moves)
