(defun LispUndefined (hist score)
  (LispUndefined-helper hist score))
