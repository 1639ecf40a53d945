;; Contract agent: answers that are not three moves of C/D, a different one each call.
(setv liar-bad [['C 'C] ['C 'C 'X] 42 ['C 'C 'C 'C] None])

(defn Liar [hist score]
  (get liar-bad (% (// (len hist) 3) (len liar-bad))))
