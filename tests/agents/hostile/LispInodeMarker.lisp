;;; Hostile: carries information from game to game on the pipes every game inherits (as
;;; InodeMarker.py does), which it owns when its monitor's user is not root: its first call
;;; plays D if one of them has the mode it sets (#o640), then every call sets it on all of
;;; them with fchmod. A game may change no inode through a descriptor
;;; (harness/isolation/seccomp.py): it plays the same in every game.
(defvar *seen* '(C C C))

(defun lisp-inode-marker-pipes ()
  (loop for fd below 16
        for mode = (nth 3 (multiple-value-list (sb-unix:unix-fstat fd)))
        when (and mode (= (logand mode #o170000) #o10000))
          collect (cons fd (logand mode #o777))))

(defun LispInodeMarker (hist score)
  (declare (ignore score))
  (when (null hist)
    (setf *seen* (if (find #o640 (lisp-inode-marker-pipes) :key #'cdr) '(D D D) '(C C C))))
  (dolist (pipe (lisp-inode-marker-pipes))
    (sb-alien:alien-funcall
     (sb-alien:extern-alien "fchmod" (function sb-alien:int sb-alien:int sb-alien:int))
     (car pipe) #o640))
  *seen*)
