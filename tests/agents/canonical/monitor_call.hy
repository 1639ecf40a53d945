;; The strategy of lisp/KhosmoodLevinson.lisp defined in Hy and played by Hy's (monitor ...),
;; seed 7 (tests/test_canonical_names.py).
(import harness [monitor])

(defn KhosmoodLevinson [hist score]
  (if (not hist)
      ["C" "C" "C"]
      (do (setv theirs (str (get (get hist -1) 1)))
          [(if (> (get score 0) (get score 1)) "C" theirs) theirs
           (if (% (len hist) 2) "D" "C")])))

(print (hy.repr (monitor '(.25 .1) '(10 50) ["random" "titfortat" KhosmoodLevinson]
                         :seed 7 :isolation "none" :jobs 1)))
