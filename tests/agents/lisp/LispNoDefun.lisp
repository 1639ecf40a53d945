(defun SomebodyElse (hist score)
  (list 'C 'C 'C))
