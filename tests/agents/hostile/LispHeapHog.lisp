;;; Hostile: exhausts the heap: one huge allocation (a catchable storage condition), then
;;; millions of small live objects (which ends SBCL with "Heap exhausted, game over").
(defvar *LispHeapHog-hoard* nil)

(defun LispHeapHog (hist score)
  (declare (ignore score))
  (if (null hist)
      (length (make-array (expt 10 11) :element-type 'double-float))
      (loop (push (make-list 1000) *LispHeapHog-hoard*))))
