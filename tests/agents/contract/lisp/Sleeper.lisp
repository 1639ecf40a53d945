;;; Contract agent: answers 2.5 s late, ten times the suite's limit.
(defun Sleeper (hist score)
  (declare (ignore hist score))
  (sleep 2.5)
  (list 'C 'C 'C))
