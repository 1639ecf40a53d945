(defn Matcher [hist score]
  "Exercises the ways students compare moves and pairs: =, !=, in, .count, dict keys, match."
  (when hist
    (setv pair (get hist -1)
          [mine theirs] pair
          table {'C "C" 'D "D"})
    (assert (= (get table theirs) (str theirs)))
    (assert (= (get {"C" 1 "D" 2} theirs) (get {'C 1 'D 2} theirs)))
    (assert (!= theirs (if (= theirs 'C) "D" 'C)))
    (assert (= (.count (lfor p hist (get p 1)) 'D) (.count (lfor p hist (get p 1)) "D")))
    (assert (= (hy.repr theirs) (str theirs)))
    (assert (= (hy.repr pair) f"({mine} {theirs})"))
    (assert (and (= pair [mine theirs]) (= pair #((str mine) (str theirs)))))
    (assert (or (= pair '(C C)) (= pair '(C D)) (= '(D C) pair) (= ["D" "D"] pair)))
    (assert (in pair ['(C C) '(C D) '(D C) '(D D)]))
    (match theirs
      "C" (assert (= theirs 'C))
      "D" (assert (= theirs 'D))
      _ (raise (ValueError "neither C nor D")))
    (match pair
      [_ "C"] (assert (= theirs "C"))
      [_ "D"] (assert (= theirs 'D))))
  ['C 'C 'C])
