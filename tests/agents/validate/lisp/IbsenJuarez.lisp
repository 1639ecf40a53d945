(defun IbsenJuarez (hist score)
  (declare (ignore score))
  (if hist (list 'C 'X 'D) (list 'C 'C 'C)))
