;; A string that is never closed: the error must point at line 3, not at the file's end.
(defn UnclosedString [hist score]
  (print "thinking)
  ['C 'C 'C])

(defn UnclosedString-helper [x]
  x)
