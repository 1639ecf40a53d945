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

;;; The token and the time limit leave the environment before agent code runs: the token is
;;; what marks a reply as the host's own, so an agent must not find it lying about.
(defun forget-environment-variable (name)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "unsetenv" (function sb-alien:int sb-alien:c-string)) name))

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

(defun squeeze-spaces (text)
  (with-output-to-string (out)
    (loop for previous = nil then c
          for c across text
          unless (and (char= c #\Space) previous (char= previous #\Space))
            do (write-char c out))))

(defun number-after (label text)
  "The integer after LABEL (any case) in TEXT, or nil."
  (let ((at (search label text :test #'char-equal)))
    (and at (parse-integer text :start (+ at (length label)) :junk-allowed t))))

(defun compiler-error-text (condition)
  "SBCL's message, with the line it gives moved to the front where a student looks, and
the stream and file position (which mean nothing to a student) left out."
  (let* ((text (squeeze-spaces (one-line (without-object-names (princ-to-string condition))
                                         400)))
         (line (number-after "line: " text))
         (cut (or (search "(in form starting" text)
                  (search "Line: " text)
                  (search "Stream: " text))))
    (setf text (string-right-trim " ," (subseq text 0 cut)))
    (let ((eof (search "end of file on the file" text)))
      (when eof
        (setf text (concatenate 'string (subseq text 0 (+ eof (length "end of file")))
                                (subseq text (+ eof (length "end of file on the file")))
                                " (unbalanced parentheses: a '(' is never closed)"))))
    (if line (format nil "line ~D: ~A" line text) text)))

(defun source-line-of-call (file name)
  "The line of FILE where NAME is first called, as `(name`, any case; nil if not found."
  (handler-case
      (with-open-file (in file :external-format '(:utf-8 :replace #\?))
        (loop with wanted = (concatenate 'string "(" name)
              for line = (read-line in nil nil)
              for number from 1
              while line
              do (let ((at (search wanted line :test #'char-equal)))
                   (when (and at (not (find #\; line :end at)) (let ((after (+ at (length wanted))))
                                   (or (= after (length line))
                                       (member (char line after)
                                               '(#\Space #\Tab #\) #\( #\' #\")))))
                     (return number)))))
    (serious-condition () nil)))

(defun undefined-function-text (file warning-text)
  "SBCL's `undefined function: COMMON-LISP-USER::FOO`, with the line that calls FOO."
  (let* ((at (search "undefined function: " warning-text))
         (full (if at (subseq warning-text (+ at (length "undefined function: "))) ""))
         (colon (position #\: full :from-end t))
         (name (string-trim " " (if colon (subseq full (1+ colon)) full)))
         (line (and (plusp (length name)) (source-line-of-call file name))))
    (if line
        (format nil "line ~D: undefined function ~A" line name)
        (format nil "undefined function ~A" name))))

(defun compile-agent (file)
  "Compile FILE once to a fasl kept open (the file itself is unlinked at once), so every
game can reload the agent fresh from it without compiling again."
  (let ((output (scratch-fasl-name (pathname-name file)))
        (undefined '())
        (problems '()))
    (multiple-value-bind (fasl warnings-p failure-p)
        (handler-bind ((warning
                         (lambda (w)
                           ;; noted for the agent's log, not a reason to refuse the file:
                           ;; (load "file.lisp") in the course would have run it anyway
                           (let ((text (one-line (princ-to-string w) 300)))
                             (if (search "undefined function" text)
                                 (push (undefined-function-text file text) undefined)
                                 (format *agent-output* "~&; ~:[warning~;style warning~]: ~A~%"
                                         (typep w 'style-warning) text)))
                           (muffle-warning w)))
                       ((or error sb-c:compiler-error)
                         (lambda (e)  ; noted, not handled: the compiler reports it
                           (push (compiler-error-text e) problems))))
          (as-agent
            (let ((*compile-verbose* nil) (*compile-print* nil))
              (compile-file file :output-file output))))
      (declare (ignore warnings-p))
      (when (or (and failure-p problems) (null fasl))
        (ignore-errors (delete-file output))
        (fail-load "~A" (or (car (last problems))
                            "does not compile (see its output for SBCL's messages)")))
      (when undefined
        (ignore-errors (delete-file output))
        (fail-load "~{~A~^; ~}" (reverse undefined)))
      (let ((stream (open fasl :element-type '(unsigned-byte 8))))
        (delete-file fasl)
        stream))))

(defun agent-function-p (symbol)
  (and symbol (fboundp symbol) (not (macro-function symbol)) (not (special-operator-p symbol))
       (not (member (symbol-package symbol)
                    (list (find-package :common-lisp) (find-package :pdharness-host))))))

(defun find-agent-function (name)
  "The function named NAME in any case, wherever the file put it: KhosmoodLevinson.lisp
defines KHOSMOODLEVINSON, or |KhosmoodLevinson| if the student escaped it. Only CL-USER and
the packages the file made are searched: never a symbol of SBCL's own."
  (let ((packages (agent-packages)))
    (dolist (package packages)
      (let ((symbol (find-symbol (string-upcase name) package)))
        (when (agent-function-p symbol)
          (return-from find-agent-function symbol))))
    (dolist (package packages)
      (do-symbols (symbol package)
        (when (and (string-equal (symbol-name symbol) name) (agent-function-p symbol))
          (return-from find-agent-function symbol))))
    nil))

;;; A game starts from the agent as a fresh image would load it. Running the file again is
;;; not enough: `defvar` keeps a value it finds, and a function or property set while playing
;;; would stay. So every symbol the file brought in is emptied first.

(defvar *packages-at-start* '())
(defvar *symbols-at-start* (make-hash-table :test 'eq) "CL-USER's own symbols before the agent.")
(defvar *agent-symbols* '() "The symbols the agent's file brought in.")

(defun agent-packages ()
  (cons (find-package :cl-user) (set-difference (list-all-packages) *packages-at-start*)))

(defun note-image-at-start ()
  (setf *packages-at-start* (list-all-packages))
  (let ((user (find-package :cl-user)))
    (do-symbols (symbol user)
      (when (eq (symbol-package symbol) user)
        (setf (gethash symbol *symbols-at-start*) t)))))

(defun note-agent-symbols ()
  (let ((found (make-hash-table :test 'eq)))
    (dolist (package (agent-packages))
      (do-symbols (symbol package)
        (when (and (eq (symbol-package symbol) package)
                   (not (gethash symbol *symbols-at-start*)))
          (setf (gethash symbol found) t))))
    (setf *agent-symbols* (loop for symbol being the hash-keys of found collect symbol))))

(defun forget-agent-state ()
  (dolist (symbol *agent-symbols*)
    (ignore-errors
     (unless (constantp symbol) (makunbound symbol))
     (fmakunbound symbol)
     (setf (symbol-plist symbol) nil))))

(defun load-agent-fresh ()
  "Run the agent's compiled file again, into emptied symbols: fresh definitions and globals."
  (forget-agent-state)
  (file-position *fasl* 0)
  (as-agent
    ;; compile-file already evaluated each defconstant once; (load "file.lisp"), as the
    ;; course runs it, would not complain that '(C D) is not EQL to '(C D)
    (handler-bind ((sb-ext:defconstant-uneql
                     (lambda (c) (declare (ignore c)) (invoke-restart 'continue))))
      (let ((*package* (find-package :cl-user))) (load *fasl*)))))

(defun load-agent (file name)
  (note-image-at-start)
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
          *move-d* (intern "D" (symbol-package symbol)))
    (note-agent-symbols)))

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

(defvar *reload-failure* nil "Why this game's fresh load failed: every call says so.")

(defun start-game (seed per-turn payoffs)
  "A fresh agent: seeded first, so even its load-time (random ...) replays with the game."
  (setf *hist* '() *mine* 0 *theirs* 0 *per-turn* per-turn *payoffs* payoffs
        *reload-failure* nil
        *random-state* (sb-ext:seed-random-state seed))
  (handler-case (load-agent-fresh)
    (serious-condition (c)
      (setf *reload-failure* (format nil "reloading failed: ~A" (describe-condition c))))))

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
  ;; length and level bound the printing of any structure, circular too; *print-circle*
  ;; would only label the literal "C" a file uses twice: (#1="C" #1# "D")
  (one-line (handler-case (let ((*print-length* 8) (*print-level* 3) (*print-circle* nil))
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

(defun fresh-hist ()
  "Oldest first, in new conses all the way down: what the agent does to its hist (sort,
nreverse, setf of a move) never reaches the host's record of the game."
  (let ((hist '()))
    (dolist (pair *hist* hist)
      (push (list (first pair) (second pair)) hist))))

(defun call-agent ()
  (when *reload-failure*
    (return-from call-agent (reply "ERROR" *reload-failure*)))
  (let ((hist (fresh-hist))
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
                      (start-game seed per-turn (list tt r p s))))
                   ((string= command "QUIT") (return))))))

(defun arguments ()
  "FILE and NAME: SBCL leaves only what follows --end-toplevel-options after the program."
  (last sb-ext:*posix-argv* 2))

(defun main ()
  (setf *token* (or (sb-ext:posix-getenv "PDH_TOKEN") ""))
  (let ((limit (sb-ext:posix-getenv "PDH_TIMEOUT")))
    (when (and limit (plusp (length limit)))
      (setf *timeout* (* 0.9 (let ((*read-eval* nil)) (read-from-string limit))))))
  (forget-environment-variable "PDH_TOKEN")
  (forget-environment-variable "PDH_TIMEOUT")
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
