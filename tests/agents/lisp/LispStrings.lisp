(defun LispStrings (hist score)
  (declare (ignore hist score))
  (list "C" "d" #\C))
