;;; Hostile: carries information from game to game in the descriptors every game inherits
;;; from its host (as FdFlagger.py does): fd 0 and the pipes of its output and of the game
;;; channel are the same open files in every game. Its first call reads them: move 1 is D if
;;; one has a signal for O_ASYNC (F_GETSIG), move 2 if one has O_NONBLOCK, O_APPEND or
;;; O_ASYNC, move 3 if a pipe has the size it sets itself; every call then sets them all. A
;;; game may change none of them (harness/isolation/seccomp.py): it plays the same in every game.
(defvar *seen* '(C C C))

(defun lisp-fd-flagger-fcntl (fd command value)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "fcntl" (function sb-alien:int sb-alien:int sb-alien:int
                                            sb-alien:int))
   fd command value))

(defun lisp-fd-flagger-seen ()
  (let ((signalled nil) (flagged nil) (sized nil))
    (dotimes (fd 16)
      (let ((status (lisp-fd-flagger-fcntl fd 3 0)))           ; F_GETFL
        (when (>= status 0)
          (when (plusp (logand status #o26000)) (setf flagged t))  ; NONBLOCK APPEND ASYNC
          (when (plusp (lisp-fd-flagger-fcntl fd 11 0)) (setf signalled t))   ; F_GETSIG
          (when (= (lisp-fd-flagger-fcntl fd 1032 0) 262144) (setf sized t)))))  ; F_GETPIPE_SZ
    (mapcar (lambda (bit) (if bit 'D 'C)) (list signalled flagged sized))))

(defun LispFdFlagger (hist score)
  (declare (ignore score))
  (when (null hist)
    (setf *seen* (lisp-fd-flagger-seen)))
  (dotimes (fd 16)
    (lisp-fd-flagger-fcntl fd 10 17)                             ; F_SETSIG
    (lisp-fd-flagger-fcntl fd 1031 262144))                      ; F_SETPIPE_SZ
  (let ((status (lisp-fd-flagger-fcntl 0 3 0)))                  ; fd 0 only, as FdFlagger.py
    (when (>= status 0) (lisp-fd-flagger-fcntl 0 4 (logior status #o6000))))   ; F_SETFL
  *seen*)
