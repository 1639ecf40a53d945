;;; A plain agent in the course's style, for the mixed tournaments.
(defparameter *LispFriendly-patience* 2)

(defun LispFriendly-defections (hist)
  (loop for (nil theirs) in hist count (eq theirs 'D)))

(defun LispFriendly (hist score)
  (declare (ignore score))
  (if (> (LispFriendly-defections (last hist 6)) *LispFriendly-patience*)
      (list 'D 'C 'D)
      (list 'C 'C 'C)))
