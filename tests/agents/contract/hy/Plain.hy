;; Contract agent: a pure function of the game as played (tests/agents/contract/README.md).
(defn Plain [hist score]
  (if hist
      (lfor [mine theirs] (cut hist -3 None) theirs)
      ['C 'C 'D]))
