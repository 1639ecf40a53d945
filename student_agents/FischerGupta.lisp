;;;; Score watcher, by Fischer and Gupta.
;;;; Cooperates while it is not behind; when the opponent leads by more than ten points,
;;;; defects on the first move of each turn to claw some back, and mirrors the rest.

(defparameter *FischerGupta-margin* 10)

(defun FischerGupta-behind-p (score)
  (> (- (second score) (first score)) *FischerGupta-margin*))

(defun FischerGupta-mirror (hist)
  (loop for (nil theirs) in (last hist 2) collect theirs))

(defun FischerGupta (hist score)
  (cond ((null hist) (list 'C 'C 'C))
        ((FischerGupta-behind-p score) (cons 'D (FischerGupta-mirror hist)))
        (t (list 'C 'C 'C))))
