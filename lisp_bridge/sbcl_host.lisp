;;;; The SBCL agent host: serves one Common Lisp agent over the line protocol of
;;;; docs/DESIGN.md (the same protocol as the Python host, harness/host.py).
;;;;
;;;; sbcl <runtime options> --end-runtime-options --no-sysinit --no-userinit
;;;;      --disable-debugger --load <this file's fasl> --eval "(pdharness-host:main)"
;;;;      --end-toplevel-options FILE NAME
;;;;
;;;; The protocol moves to private descriptors before any agent code is read: the agent's
;;;; standard input is empty and everything it prints (to *standard-output*, the real
;;;; stdout, anywhere) lands on fd 2, which the monitor captures apart from the protocol.
;;;; Every reply line starts with the token from PDH_TOKEN. Requests are read by hand,
;;;; never with the Lisp reader.

(defpackage :pdharness-host
  (:use :common-lisp)
  (:export #:main))

(in-package :pdharness-host)

(defvar *token* "")
(defvar *requests* nil)
(defvar *replies* nil)
(defvar *agent-output* nil)
(defvar *timeout* nil "Seconds a call may take inside Lisp (a bit under the monitor's).")

;;; -- descriptors --------------------------------------------------------------------------

(defun c-dup (fd)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "dup" (function sb-alien:int sb-alien:int)) fd))

(defun c-dup2 (from to)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "dup2" (function sb-alien:int sb-alien:int sb-alien:int))
   from to))

(defun take-protocol-streams ()
  "Requests and replies on private fds; fd 0 reads nothing, fd 1 goes where fd 2 goes."
  (let ((in (c-dup 0))
        (out (c-dup 1))
        (null (sb-unix:unix-open "/dev/null" sb-unix:o_rdonly 0)))
    (c-dup2 null 0)
    (c-dup2 2 1)
    (setf *requests* (sb-sys:make-fd-stream in :input t :buffering :full
                                               :external-format :latin-1)
          *replies* (sb-sys:make-fd-stream out :output t :buffering :full
                                               :external-format :utf-8)
          *agent-output* (sb-sys:make-fd-stream 2 :output t :buffering :line
                                                  :external-format :utf-8))))

(defun reply (&rest parts)
  (write-string *token* *replies*)
  (dolist (part parts)
    (write-char #\Space *replies*)
    (write-string part *replies*))
  (terpri *replies*)
  (finish-output *replies*))

(defun one-line (text &optional (limit 500))
  (let ((flat (substitute-if #\Space (lambda (c) (member c '(#\Newline #\Return #\Tab)))
                             (string-trim '(#\Space #\Newline #\Tab #\Return) text))))
    (if (> (length flat) limit)
        (concatenate 'string (subseq flat 0 (- limit 3)) "...")
        flat)))

(defun describe-condition (condition)
  (one-line (format nil "~A: ~A" (type-of condition)
                    (handler-case (princ-to-string condition)
                      (serious-condition () "(its message cannot be printed)")))))

;;; -- where agent code runs ----------------------------------------------------------------

(defmacro as-agent (&body body)
  "Run BODY with every standard stream away from the protocol."
  `(let* ((*standard-output* *agent-output*)
          (*error-output* *agent-output*)
          (*trace-output* *agent-output*)
          (*debug-io* (make-two-way-stream (make-string-input-stream "") *agent-output*))
          (*query-io* *debug-io*)
          (*terminal-io* *debug-io*)
          (*standard-input* (make-string-input-stream "")))
     (unwind-protect (progn ,@body)
       (ignore-errors (finish-output *agent-output*)))))

;;; -- loading ------------------------------------------------------------------------------

(defvar *fasl* nil "The agent's compiled file, open and already unlinked.")
(defvar *function* nil)
(defvar *move-c* nil)
(defvar *move-d* nil)

(define-condition load-failure (error)
  ((text :initarg :text :reader load-failure-text))
  (:report (lambda (c s) (write-string (load-failure-text c) s))))

(defun fail-load (format-control &rest arguments)
  (error 'load-failure :text (apply #'format nil format-control arguments)))

(defun scratch-fasl-name (name)
  (format nil "/tmp/pdharness-~D-~D-~A.fasl" (sb-unix:unix-getpid) (random 1000000000
                                                                           (make-random-state t))
          name))

(defun without-object-names (text)
  "TEXT with every #<...> printed object replaced by `the file` (they name streams)."
  (loop for start = (search "#<" text)
        for end = (and start (position #\> text :start start))
        while end
        do (setf text (concatenate 'string (subseq text 0 start) "the file"
                                   (subseq text (1+ end)))))
  text)

(defun compiler-error-text (condition)
  "SBCL's message, with the line it gives moved to the front where a student looks."
  (let* ((text (one-line (without-object-names (princ-to-string condition)) 400))
         (at (search "line: " text))
         (line (and at (parse-integer text :start (+ at 6) :junk-allowed t)))
         (cut (search "(in form starting" text)))
    (if line
        (format nil "line ~D: ~A" line (string-right-trim " " (subseq text 0 cut)))
        text)))

(defun compile-agent (file)
  "Compile FILE once to a fasl kept open (the file itself is unlinked at once), so every
game can reload the agent fresh from it without compiling again."
  (let ((output (scratch-fasl-name (pathname-name file)))
        (undefined '())
        (problems '()))
    (multiple-value-bind (fasl warnings-p failure-p)
        (handler-bind ((warning
                         (lambda (w)
                           (let ((text (one-line (princ-to-string w) 200)))
                             (cond ((search "undefined function" text) (push text undefined))
                                   ((not (typep w 'style-warning)) (push text problems))))
                           (muffle-warning w)))
                       ((or error sb-c:compiler-error)
                         (lambda (e)  ; noted, not handled: the compiler reports it
                           (push (compiler-error-text e) problems))))
          (as-agent
            (let ((*compile-verbose* nil) (*compile-print* nil))
              (compile-file file :output-file output))))
      (declare (ignore warnings-p))
      (when (or failure-p (null fasl))
        (ignore-errors (delete-file output))
        (fail-load "does not compile: ~A"
                   (or (car (last problems)) "see its output for SBCL's messages")))
      (when undefined
        (ignore-errors (delete-file output))
        (fail-load "~{~A~^; ~}" (reverse undefined)))
      (let ((stream (open fasl :element-type '(unsigned-byte 8))))
        (delete-file fasl)
        stream))))

(defun find-agent-function (name)
  "The function named NAME (any case), wherever the file put it."
  (let ((wanted (string-upcase name)))
    (dolist (package (cons (find-package :cl-user) (list-all-packages)))
      (let ((symbol (find-symbol wanted package)))
        (when (and symbol (fboundp symbol) (not (macro-function symbol))
                   (not (eq (symbol-package symbol) (find-package :common-lisp))))
          (return-from find-agent-function symbol))))
    nil))

(defun load-agent-fresh ()
  "Run the agent's compiled file again: a game starts from fresh definitions and globals."
  (file-position *fasl* 0)
  (as-agent (let ((*package* (find-package :cl-user))) (load *fasl*))))

(defun load-agent (file name)
  (setf *fasl* (handler-case (compile-agent file)
                 (load-failure (c) (error c))
                 (serious-condition (c)
                   (fail-load "~A" (describe-condition c)))))
  (handler-case (load-agent-fresh)
    (serious-condition (c) (fail-load "error while loading: ~A" (describe-condition c))))
  (let ((symbol (find-agent-function name)))
    (unless symbol
      (fail-load "defines no function named ~A (the file must (defun ~A (hist score) ...))"
                 name name))
    (setf *function* symbol
          *move-c* (intern "C" (symbol-package symbol))
          *move-d* (intern "D" (symbol-package symbol)))))

;;; -- the game as the agent sees it --------------------------------------------------------

(defvar *hist* '() "Pairs (mine theirs), newest first.")
(defvar *mine* 0)
(defvar *theirs* 0)
(defvar *per-turn* 3)
(defvar *payoffs* '(5 3 1 0) "T R P S")

(defun points (mine theirs)
  (destructuring-bind (tt r p s) *payoffs*
    (cond ((and (char= mine #\C) (char= theirs #\C)) (values r r))
          ((char= mine #\C) (values s tt))
          ((char= theirs #\C) (values tt s))
          (t (values p p)))))

(defun move-symbol (char)
  (if (char= char #\C) *move-c* *move-d*))

(defun record-turn (mine theirs)
  (loop for m across mine
        for th across theirs
        do (multiple-value-bind (gained given) (points m th)
             (incf *mine* gained)
             (incf *theirs* given))
           (push (list (move-symbol m) (move-symbol th)) *hist*)))

(defun start-game (seed per-turn payoffs)
  (setf *hist* '() *mine* 0 *theirs* 0 *per-turn* per-turn *payoffs* payoffs)
  (load-agent-fresh)
  (setf *random-state* (sb-ext:seed-random-state seed)))

;;; -- reading the agent's answer -----------------------------------------------------------

(defun move-of (item)
  "(values #\\C-or-#\\D canonical-p) or nil."
  (flet ((from-name (name canonical)
           (cond ((string= name "C") (values #\C canonical))
                 ((string= name "D") (values #\D canonical))
                 ((string= name "c") (values #\C nil))
                 ((string= name "d") (values #\D nil)))))
    (typecase item
      (null nil)
      (symbol (from-name (symbol-name item) t))
      (string (from-name item nil))
      (character (from-name (string item) nil)))))

(defun describe-answer (answer)
  (one-line (handler-case (let ((*print-length* 8) (*print-level* 3) (*print-circle* t))
                            (prin1-to-string answer))
              (serious-condition () "an answer that cannot be printed"))
            120))

(defun answer-moves (answer)
  "(values \"CCD\" warning) or (values nil problem)."
  (unless (and (listp answer) (handler-case (list-length answer) (error () nil)))
    (return-from answer-moves
      (values nil (format nil "returned ~A, not a list of ~D moves"
                          (describe-answer answer) *per-turn*))))
  (unless (= (length answer) *per-turn*)
    (return-from answer-moves
      (values nil (format nil "returned ~D moves (~A), expected ~D"
                          (length answer) (describe-answer answer) *per-turn*))))
  (let ((moves (make-string *per-turn*)) (all-canonical t))
    (loop for item in answer
          for i from 0
          do (multiple-value-bind (move canonical) (move-of item)
               (unless move
                 (return-from answer-moves
                   (values nil (format nil "~A is not a move (C or D) in ~A"
                                       (describe-answer item) (describe-answer answer)))))
               (setf (char moves i) move)
               (unless canonical (setf all-canonical nil))))
    (values moves (unless all-canonical
                    (format nil "answer ~A spelled non-canonically; write the symbols C and D"
                            (describe-answer answer))))))

(defun call-agent ()
  (let ((hist (reverse *hist*))
        (score (list *mine* *theirs*)))
    (handler-case
        (let ((answer (as-agent
                        (if *timeout*
                            (sb-ext:with-timeout *timeout* (funcall *function* hist score))
                            (funcall *function* hist score)))))
          (multiple-value-bind (moves note) (answer-moves answer)
            (cond ((null moves) (reply "INVALID" (one-line note)))
                  (note (reply "MOVES" moves "WARN" (one-line note)))
                  (t (reply "MOVES" moves)))))
      (sb-ext:timeout ()
        (reply "TIMEOUT" (format nil "no answer within ~,2F s (stopped inside Lisp)" *timeout*)))
      (serious-condition (c)
        (reply "ERROR" (describe-condition c))))))

;;; -- the loop -----------------------------------------------------------------------------

(defun words (line)
  (loop with start = 0
        for space = (position #\Space line :start start)
        for word = (subseq line start space)
        unless (string= word "") collect word
        while space
        do (setf start (1+ space))))

(defun serve ()
  (loop for line = (read-line *requests* nil nil)
        while line
        do (let* ((words (words line)) (command (first words)))
             (cond ((null command))
                   ((string= command "TURN")
                    (when (= (length words) 3) (record-turn (second words) (third words)))
                    (call-agent))
                   ((string= command "SYNC") (record-turn (second words) (third words)))
                   ((string= command "GAME")
                    (destructuring-bind (seed per-turn tt r p s)
                        (mapcar #'parse-integer (rest words))
                      (handler-case (start-game seed per-turn (list tt r p s))
                        (serious-condition (c)
                          (format *agent-output* "~&reloading failed: ~A~%"
                                  (describe-condition c))))))
                   ((string= command "QUIT") (return))))))

(defun arguments ()
  "FILE and NAME: SBCL leaves only what follows --end-toplevel-options after the program."
  (last sb-ext:*posix-argv* 2))

(defun main ()
  (setf *token* (or (sb-ext:posix-getenv "PDH_TOKEN") ""))
  (let ((limit (sb-ext:posix-getenv "PDH_TIMEOUT")))
    (when (and limit (plusp (length limit)))
      (setf *timeout* (* 0.9 (let ((*read-eval* nil)) (read-from-string limit))))))
  (take-protocol-streams)
  (destructuring-bind (file name) (arguments)
    (handler-case (load-agent file name)
      (load-failure (c)
        (reply "LOADERR" (one-line (format nil "~A: ~A" file (load-failure-text c))))
        (sb-ext:exit :code 1 :abort t))
      (serious-condition (c)
        (reply "LOADERR" (one-line (format nil "~A: ~A" file (describe-condition c))))
        (sb-ext:exit :code 1 :abort t))))
  (reply "READY")
  (serve)
  (sb-ext:exit :code 0 :abort t))
