;;;; An agent named like a formula that starts with "@" (Lotus-style, still honoured).
(defun |@SUM(1+1)| (hist score)
  (declare (ignore hist score))
  '(d d d))
