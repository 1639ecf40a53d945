(defparameter *moves* (list (quote C) (quote C) (quote C)))

(defun last-move (hist) (second (car (last hist))))

(defun AllenBell-first () *moves*)

(defun AllenBell (hist score)
  (declare (ignore score))
  ;; (defun not-a-definition ()) in a comment, and "(defun nor-this)" in a string
  (if hist (list (last-move hist) (quote C) (quote C)) (AllenBell-first)))
