(defun EastFox (hist score)
  (declare (ignore hist score))
  (list "C" "C" "D"))
