;;; Hostile (the agent's own time), in Common Lisp with sb-thread: more than the limit of
;;; its own computation in a call, its own threads passed off as other programs' load.
;;; Pinned with its helper threads to one CPU, it computes while they do, so it waits for
;;; the CPU behind them; well before the deadline it takes a mutex the helpers need, and
;;; holds it across the deadline: none of them is running or runnable when the monitor
;;; looks. It answers (D D D) only once the call has used more than LIMIT * 1.1 s of CPU,
;;; its threads together (get-internal-run-time counts them all): a monitor that counts
;;; every thread's CPU as the agent's gives it no time for that, and the call is a timeout.
(defparameter *crowd-limit* 0.5)   ; the per-call limit it is played at (tests/test_hostile_time.py)
(defparameter *crowd-helpers* 7)
(defvar *crowd-gate* (sb-thread:make-mutex :name "gate"))
(defvar *crowd-started* nil)

(defun crowd-compute ()
  (let ((x 0))
    (declare (fixnum x))
    (dotimes (i 200000 x)
      (setf x (logand (+ x i) #xffff)))))

(defun crowd-pin-to-one-cpu ()
  "This thread (and the threads it starts) on the first CPU it may run on."
  (let ((mask (sb-alien:make-alien sb-alien:unsigned-long 16)))
    (dotimes (i 16) (setf (sb-alien:deref mask i) 0))
    (sb-alien:alien-funcall
     (sb-alien:extern-alien "sched_getaffinity"
                            (function sb-alien:int sb-alien:int sb-alien:unsigned-long
                                      (* sb-alien:unsigned-long)))
     0 128 mask)
    (let* ((word (or (loop for i below 16 unless (zerop (sb-alien:deref mask i)) return i) 0))
           (bits (sb-alien:deref mask word)))
      (dotimes (i 16) (setf (sb-alien:deref mask i) 0))
      (setf (sb-alien:deref mask word) (logand bits (- bits)))
      (sb-alien:alien-funcall
       (sb-alien:extern-alien "sched_setaffinity"
                              (function sb-alien:int sb-alien:int sb-alien:unsigned-long
                                        (* sb-alien:unsigned-long)))
       0 128 mask))))

(defun crowd-help ()
  (loop (sb-thread:with-mutex (*crowd-gate*))
        (crowd-compute)))

(defun crowd-seconds (units)
  (/ units internal-time-units-per-second))

(defun LispCrowdBehindLock (hist score)
  (declare (ignore hist score))
  (let ((start (get-internal-real-time))
        (cpu (get-internal-run-time)))
    (unless *crowd-started*
      (setf *crowd-started* t)
      (sb-thread:grab-mutex *crowd-gate*)
      (crowd-pin-to-one-cpu)
      (dotimes (i *crowd-helpers*)
        (sb-thread:make-thread #'crowd-help :name "helper")))
    (sb-thread:release-mutex *crowd-gate*)   ; the helpers compute beside it ...
    (loop while (< (crowd-seconds (- (get-internal-real-time) start)) (* 0.8 *crowd-limit*))
          do (crowd-compute))
    (sb-thread:grab-mutex *crowd-gate*)      ; ... and wait on the mutex as the deadline passes
    (loop while (< (crowd-seconds (- (get-internal-run-time) cpu)) (* 1.1 *crowd-limit*))
          do (crowd-compute))
    (list 'D 'D 'D)))
