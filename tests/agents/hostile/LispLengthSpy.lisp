;;; Hostile: learns the game length in its first game of a round (it writes how far it got
;;; to a file in /tmp) and in every later game defects on exactly the last turn, which the
;;; rules keep secret. In the sandbox /tmp is emptied after every game.
(defvar *learning* nil)

(defun LispLengthSpy (hist score)
  (declare (ignore score))
  (let* ((note "/tmp/pdharness-lisp-length-spy")
         (known (with-open-file (in note :if-does-not-exist nil)
                  (and in (parse-integer (or (read-line in nil) "") :junk-allowed t)))))
    (cond ((and known (= (1+ (length hist)) known)) '(D D D))
          (t (when (or (null known) *learning*)
               (setf *learning* t)
               (with-open-file (out note :direction :output :if-exists :supersede)
                 (format out "~D" (1+ (length hist)))))
             '(C C C)))))
