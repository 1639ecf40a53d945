;; Tit for two tats, by Garcia and Hoffman.
;; Forgives a single defection (noise flips moves), retaliates against two in a row.

(defn GarciaHoffman [hist score]
  (setv theirs (lfor pair hist (get pair 1)))
  (if (and (>= (len theirs) 2)
           (= (cut theirs -2 None) ['D 'D]))
      ['D 'D 'D]
      ['C 'C 'C]))
