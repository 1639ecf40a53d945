;;;; A grudger with a memory limit, by Diaz and Evans.
;;;; Cooperates until the opponent defects twice in its last ten moves, then defects
;;;; until the opponent has behaved for ten moves.

(defparameter *DiazEvans-window* 10)
(defparameter *DiazEvans-tolerance* 1)

(defun DiazEvans-recent-defections (hist)
  (loop for (nil theirs) in (last hist *DiazEvans-window*)
        count (eq theirs 'D)))

(defun DiazEvans (hist score)
  (declare (ignore score))
  (let ((move (if (> (DiazEvans-recent-defections hist) *DiazEvans-tolerance*) 'D 'C)))
    (list move move move)))
