(defun LispReadError (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))

(defun LispReadError-weight ()
  #z1)
