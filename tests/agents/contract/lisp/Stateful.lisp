;;; Contract agent: counts its calls in a global, which must start at 0 every game.
(defparameter *Stateful-calls* 0)

(defun Stateful (hist score)
  (declare (ignore hist score))
  (incf *Stateful-calls*)
  (let ((defects (min (- *Stateful-calls* 1) 3)))
    (append (make-list defects :initial-element 'D)
            (make-list (- 3 defects) :initial-element 'C))))
