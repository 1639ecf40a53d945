;;; Globals of every kind that a game changes: a fresh game must find them as the file
;;; leaves them (defvar keeps a value it finds, so reloading the file alone is not enough).
(defvar *LispCounter-calls* 0)
(defvar *LispCounter-seen* (make-hash-table))
(defconstant +LispCounter-opening+ '(C C C))  ; a list: not EQL to itself on a second load

(defun LispCounter (hist score)
  (declare (ignore hist score))
  (incf *LispCounter-calls*)
  (setf (gethash *LispCounter-calls* *LispCounter-seen*) t)
  (when (= *LispCounter-calls* 2)
    ;; defined while playing: gone in the next game
    (setf (symbol-function 'LispCounter-late) (lambda () '(D D D)))
    (setf (get 'LispCounter 'mood) 'angry))
  (cond ((fboundp 'LispCounter-late) (list 'D 'C 'D))
        ((get 'LispCounter 'mood) (list 'D 'D 'D))
        ((> (hash-table-count *LispCounter-seen*) *LispCounter-calls*) (list 'D 'D 'C))
        (t +LispCounter-opening+)))
