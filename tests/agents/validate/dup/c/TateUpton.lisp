(defun TateUpton (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))
