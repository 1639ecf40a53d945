(defun ColeDunn (hist score)
  (ColeDunn-missing hist))
