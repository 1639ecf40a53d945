(defun BellCole (hist score)
  (list (quote C) (quote C) (quote C))
