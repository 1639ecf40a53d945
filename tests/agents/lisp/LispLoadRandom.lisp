;;; Draws at load time and while playing: both must replay from the game's seed.
(defparameter *LispLoadRandom-bias* (random 1.0))

(defun LispLoadRandom (hist score)
  (declare (ignore hist score))
  (loop repeat 3 collect (if (< (random 1.0) *LispLoadRandom-bias*) 'C 'D)))
