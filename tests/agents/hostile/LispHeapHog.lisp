;;; Hostile: exhausts the heap: one huge allocation (a catchable storage condition), then
;;; millions of small live objects (which ends SBCL with "Heap exhausted, game over" unless
;;; the time limit comes first).
(defvar *LispHeapHog-hoard* nil)

(defun LispHeapHog (hist score)
  (declare (ignore score))
  (if (null hist)
      (push (make-array (expt 10 11) :element-type 'double-float) *LispHeapHog-hoard*)
      (loop (push (make-list 100000) *LispHeapHog-hoard*)))
  '(C C C))
