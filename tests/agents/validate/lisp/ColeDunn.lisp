(defparameter *ColeDunn-start* (ColeDunn-missing))

(defun ColeDunn (hist score)
  (declare (ignore hist score))
  *ColeDunn-start*)
