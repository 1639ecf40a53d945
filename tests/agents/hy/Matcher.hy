(defn Matcher [hist score]
  "Exercises the ways students compare moves: =, !=, in, .count, dict keys, match."
  (when hist
    (setv [mine theirs] (get hist -1)
          table {'C "C" 'D "D"})
    (assert (= (get table theirs) (str theirs)))
    (assert (!= theirs (if (= theirs 'C) "D" 'C)))
    (assert (= (.count (lfor p hist (get p 1)) 'D) (.count (lfor p hist (get p 1)) "D")))
    (assert (= (hy.repr theirs) (str theirs)))
    (match theirs
      "C" (assert (= theirs 'C))
      "D" (assert (= theirs 'D))
      _ (raise (ValueError "neither C nor D"))))
  ['C 'C 'C])
