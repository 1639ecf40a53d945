;;;; Forgiving tit for tat, by Brown and Chen.
;;;; Copies the opponent's last turn move by move, but forgives a defection now and then:
;;;; under noise, two plain tit-for-tats punish each other's flipped moves for ever.

(defparameter *BrownChen-forgiveness* 0.2
  "Chance of answering a defection with cooperation.")

(defun BrownChen-answer (their-move)
  (cond ((eq their-move 'C) 'C)
        ((< (random 1.0) *BrownChen-forgiveness*) 'C)
        (t 'D)))

(defun BrownChen (hist score)
  (declare (ignore score))
  (if (null hist)
      (list 'C 'C 'C)
      (mapcar #'BrownChen-answer (mapcar #'second (last hist 3)))))
