(defun BellCole (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C)
