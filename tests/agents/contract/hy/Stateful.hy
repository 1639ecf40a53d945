;; Contract agent: counts its calls in a global, which must start at 0 every game.
(setv stateful-calls 0)

(defn Stateful [hist score]
  (global stateful-calls)
  (+= stateful-calls 1)
  (setv defects (min (- stateful-calls 1) 3))
  (+ (* ['D] defects) (* ['C] (- 3 defects))))
