;; Checks the shapes the contract promises: score a list of two integers, hist a list of
;; (mine theirs) pairs of moves that print as C/D.
(defn Inspector [hist score]
  (assert (is (type score) list))
  (assert (= (len score) 2))
  (assert (all (gfor n score (is (type n) int))))
  (assert (is (type hist) list))
  (for [pair hist]
    (assert (= (len pair) 2))
    (assert (all (gfor m pair (in (hy.repr m) ["C" "D"])))))
  (when hist
    (assert (= (get hist -1) '(C D)))    ; we cooperate, the opponent defects
    (assert (= score [0 (* 5 (len hist))])))
  ['C 'C 'C])
