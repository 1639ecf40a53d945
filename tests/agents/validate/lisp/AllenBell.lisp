;;;; Helpers whose names do not start with AllenBell clash with other teams' helpers.
(defparameter *moves* (list 'C 'C 'C))

(defun last-move (hist) (second (car (last hist))))

(defun AllenBell-first () *moves*)

(defmacro with-AllenBell (&body body) `(progn ,@body))

(defstruct (state (:conc-name AllenBell-state-)) count)

(let ((calls 0))
  (defun count-call () (incf calls)))

(defclass AllenBell-memory () ((seen :accessor seen :initform nil)))

(defmethod print-object ((memory AllenBell-memory) stream)
  (format stream "#<memory>"))

#+(or) (defun feature-excluded ())

(defun AllenBell (hist score)
  (declare (ignore score))
  ;; (defun not-a-definition ()) in a comment, and "(defun nor-this)" in a string
  (count-call)
  (if hist (list (last-move hist) 'C 'C) (AllenBell-first)))
