;;;; An agent named like a formula that starts with "+" (a spreadsheet computes it: 2).
(defun |+1+1| (hist score)
  (declare (ignore hist score))
  '(d c d))
