;;; Contract agent: plays its private, seeded random numbers (*random-state*).
(defun Dice (hist score)
  (declare (ignore hist score))
  (loop repeat 3 collect (if (zerop (random 2)) 'C 'D)))
