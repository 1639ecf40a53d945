(defparameter *LispGambler-calls* 0)

(defun LispGambler (hist score)
  (declare (ignore hist score))
  (incf *LispGambler-calls*)
  ;; the first three calls of every game cooperate: globals start fresh each game
  (if (<= *LispGambler-calls* 3)
      (list 'C 'C 'C)
      (loop repeat 3 collect (if (< (random 1.0) 0.5) 'C 'D))))
