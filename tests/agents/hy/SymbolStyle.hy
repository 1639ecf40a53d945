(defn SymbolStyle [hist score]
  (setv last-theirs (if hist (get (get hist -1) 1) 'C))
  (cond (= last-theirs 'D) ['D 'C 'D]
        (in 'D (lfor p hist (get p 1))) ['C 'D 'C]
        True ['C 'C 'C]))
