(defun chen_diaz (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))
