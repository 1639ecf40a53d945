;; Contract agent: answers 2.5 s late, ten times the suite's limit.
(import time)

(defn Sleeper [hist score]
  (time.sleep 2.5)
  ['C 'C 'C])
