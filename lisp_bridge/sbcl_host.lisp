;;;; The SBCL agent host: serves one Common Lisp agent over the line protocol of
;;;; docs/DESIGN.md (the same protocol as the Python host, harness/isolation/host.py).
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
(defvar *monitor-fds* '() "The control channel's pipes: a game's child closes them first.")
(defvar *game-fds* '() "The game channel (requests, replies): a game's child serves it.")

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
    (setf *monitor-fds* (list in out)
          *requests* (sb-sys:make-fd-stream in :input t :buffering :full
                                               :external-format :latin-1)
          *replies* (sb-sys:make-fd-stream out :output t :buffering :full
                                               :external-format :utf-8)
          *agent-output* (sb-sys:make-fd-stream 2 :output t :buffering :line
                                                  :external-format :utf-8))))

(defun reply (&rest parts)
  "One reply line, marked with the token: the zygote's on the control channel, a game's
child's on the game channel."
  (write-string *token* *replies*)
  (write-char #\Space *replies*)
  (loop for (part . more) on parts
        do (write-string part *replies*)
           (when more (write-char #\Space *replies*)))
  (terpri *replies*)
  (finish-output *replies*))

(defun one-line (text &optional (limit 500))
  (let ((flat (substitute-if #\Space (lambda (c) (member c '(#\Newline #\Return #\Tab)))
                             (string-trim '(#\Space #\Newline #\Tab #\Return) text))))
    (if (> (length flat) limit)
        (concatenate 'string (subseq flat 0 (- limit 3)) "...")
        flat)))

(defun describe-condition (condition &optional in-function)
  "`TYPE: message`, and `, in function NAME` when IN-FUNCTION (the agent's own function the
error came from, agent-function-on-stack) is known: where a student looks first."
  (one-line (format nil "~A: ~A~@[, in function ~A~]" (type-of condition)
                    (handler-case (princ-to-string condition)
                      (serious-condition () "(its message cannot be printed)"))
                    (and in-function
                         (handler-case (one-line (let ((*package* (find-package :keyword)))
                                                   (princ-to-string in-function))
                                                 120)
                           (serious-condition () nil))))))

(defparameter *not-agent-packages*
  (mapcar #'find-package '(:common-lisp :keyword :pdharness-host))
  "Packages whose functions are never the agent's (SB-* are told by name).")

(defun agent-symbol-p (thing)
  (and (symbolp thing) (not (keywordp thing))
       (let ((package (symbol-package thing)))
         (and package
              (not (member package *not-agent-packages*))
              (not (eql 0 (search "SB-" (package-name package))))
              ;; the REPL's monitor, and libraries a student's image may have loaded
              (not (member (package-name package) '("PDHARNESS-REPL" "ASDF/INTERFACE" "UIOP"
                                                    "ASDF" "UIOP/UTILITY")
                           :test #'string=))))))

(defun names-agent-code-p (name)
  "Whether a frame's function NAME (a symbol, or a list such as (FLET F :IN G) or
(LAMBDA (X) :IN G)) is the agent's code: a symbol of the agent's packages in it."
  (if (consp name)
      (loop for part in name thereis (names-agent-code-p part))
      (agent-symbol-p name)))

(defun agent-function-on-stack ()
  "The innermost function on the stack that the agent's code defined (its name), or nil:
called while an error is signalled, before the stack unwinds. A bounded walk."
  (handler-case
      (loop for frame = (sb-di:top-frame) then (sb-di:frame-down frame)
            for depth below 256
            while frame
            do (let ((name (sb-di:debug-fun-name (sb-di:frame-debug-fun frame))))
                 (when (names-agent-code-p name)
                   (return name))))
    (serious-condition () nil)))

(defmacro noting-erring-function ((place) &body body)
  "BODY, with PLACE set to the agent's function an error left from (before any outer
handler unwinds the stack): an error the agent handles itself never reaches here."
  `(handler-bind ((error (lambda (c)
                           (declare (ignore c))
                           (unless ,place (setf ,place (agent-function-on-stack))))))
     ,@body))

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


(defvar *fasl-bytes* nil "The agent's compiled file, in the zygote's memory.")
(defvar *pid-namespace* nil
  "The zygote's PID namespace (a descriptor) once it has a world of its own; nil: games are
plain forks (no user namespaces here).")
(defvar *source-bytes* nil
  "The agent's file as the monitor read it once for the whole run (PDH_SOURCE_FD), loaded
by every process of this host from a copy in its own world's /tmp.")
(defvar *function* nil)
(defvar *move-c* nil)
(defvar *move-d* nil)

(define-condition load-failure (error)
  ((text :initarg :text :reader load-failure-text))
  (:report (lambda (c s) (write-string (load-failure-text c) s))))

(defvar *shown-file* nil
  "The agent's file as the monitor named it: a message about one of its lines says
`File.lisp:12: ...`, the one form every language's messages use.")

(defun at-line (line text)
  (format nil "~@[~A:~]~D: ~A" *shown-file* line text))

(defun located (text)
  "TEXT as `File.lisp:12: ...` when it names a line already, else `File.lisp: TEXT`."
  (if (eql 0 (search (format nil "~A:" *shown-file*) text))
      text
      (format nil "~A: ~A" *shown-file* text)))

(defun fail-load (format-control &rest arguments)
  (error 'load-failure :text (apply #'format nil format-control arguments)))

(defvar *scratch-random* nil
  "For scratch files' names, made once in the zygote: seeding one from /dev/urandom in every
game's process cost it 0.1 ms.")

(defun scratch-fasl-name (name)
  (format nil "/tmp/pdharness-~D-~D-~A.fasl" (sb-unix:unix-getpid)
          (random 1000000000 (or *scratch-random*
                                 (setf *scratch-random* (make-random-state t))))
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
    (if line (at-line line text) text)))

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
        (at-line line (format nil "undefined function ~A" name))
        (format nil "undefined function ~A" name))))

(defun source-file (file)
  "FILE as the monitor read it once for the run (*source-bytes*), copied into this
process's own /tmp (its world's, harness/isolation/world.py; without one, the machine's: a name of
its own there)."
  (let ((copy (if *pid-namespace*
                  (format nil "/tmp/~A.lisp" (pathname-name file))
                  (make-pathname :type "lisp" :defaults (scratch-fasl-name (pathname-name file))))))
    (with-open-file (out copy :direction :output :element-type '(unsigned-byte 8)
                              :if-exists :supersede)
      (write-sequence *source-bytes* out))
    copy))

(defun read-given-source (file)
  "The agent's bytes, before any game's world hides FILE: from PDH_SOURCE_FD, where the
monitor gives them that way, else from FILE, read now."
  (let ((fd (sb-ext:posix-getenv "PDH_SOURCE_FD")))
    (forget-environment-variable "PDH_SOURCE_FD")
    (with-open-stream (in (if (and fd (plusp (length fd)))
                              (sb-sys:make-fd-stream (parse-integer fd) :input t
                                                     :element-type '(unsigned-byte 8))
                              (open file :element-type '(unsigned-byte 8))))
      (setf *source-bytes* (read-all in)))))

(defun compile-agent (file)
  "Compile FILE (its bytes as the run plays them) and return the fasl's bytes."
  (let ((copy (source-file file)))
    (unwind-protect (compile-copy copy (scratch-fasl-name (pathname-name file)))
      (ignore-errors (delete-file copy)))))

(defun compile-copy (file output)
  "Compile FILE to the scratch fasl OUTPUT and return its bytes (the fasl is deleted)."
  (let ((undefined '())
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
      (prog1 (with-open-file (in fasl :element-type '(unsigned-byte 8))
               (let ((bytes (make-array (file-length in) :element-type '(unsigned-byte 8))))
                 (read-sequence bytes in)
                 bytes))
        (delete-file fasl)))))

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

;;; The agent's own packages: CL-USER and those that did not exist before it was loaded.
(defvar *packages-at-start* '())

(defun agent-packages ()
  (cons (find-package :cl-user) (set-difference (list-all-packages) *packages-at-start*)))

(defvar *game-fasl-path* nil
  "Where a game's process writes the agent's fasl, named by the zygote before the fork (the
game's serial keeps it apart from any other game's): printing is slow in a process that
has never printed.")

(defun load-agent-fresh ()
  "Load the agent's compiled file (*fasl-bytes*) into this process: written to a new scratch
file and loaded from it with plain system calls (OPEN and LOAD would ask the file system a
dozen questions a game). Where that name is taken (a shared /tmp, where an earlier game
could guess it), a name no one can guess."
  (let ((path (or (and *game-fasl-path* (write-new-file *game-fasl-path* *fasl-bytes*))
                  (let ((*scratch-random* (make-random-state t)))
                    (write-new-file (scratch-fasl-name "game") *fasl-bytes*))
                  (error "cannot write the agent's fasl to /tmp: the name is taken"))))
    (unwind-protect (load-fasl-file path)
      (sb-unix:unix-unlink path))))

(defun write-new-file (path bytes)
  "BYTES to a new file PATH, readable by its owner only; PATH, or nil if PATH exists
(O_CREAT|O_EXCL: never a file someone else made, nor through a link, dangling or not)."
  (multiple-value-bind (fd errno)
      (sb-unix:unix-open path (logior sb-unix:o_wronly sb-unix:o_creat sb-unix:o_excl) #o600)
    (unless fd
      (if (eql errno sb-unix:eexist)
          (return-from write-new-file nil)
          (error "cannot write ~A: ~A" path (sb-int:strerror errno))))
    (unwind-protect
         (loop with done = 0
               while (< done (length bytes))
               do (multiple-value-bind (wrote errno)
                      (sb-unix:unix-write fd bytes done (- (length bytes) done))
                    (cond ((and wrote (plusp wrote)) (incf done wrote))
                          ((eql errno sb-unix:eintr))
                          (t (error "cannot write ~A: ~A" path (sb-int:strerror errno))))))
      (sb-unix:unix-close fd))
    path))

(defun load-fasl-file (path)
  (multiple-value-bind (fd errno) (sb-unix:unix-open path sb-unix:o_rdonly 0)
    (unless fd (error "cannot read ~A: ~A" path (sb-int:strerror errno)))
    (with-open-stream (in (sb-sys:make-fd-stream fd :input t :element-type '(unsigned-byte 8)
                                                    :buffering :full :file path))
      (as-agent
        ;; compile-file already evaluated each defconstant once; (load "file.lisp"), as the
        ;; course runs it, would not complain that '(C D) is not EQL to '(C D)
        (handler-bind ((sb-ext:defconstant-uneql
                         (lambda (c) (declare (ignore c)) (invoke-restart 'continue))))
          (let ((*package* (find-package :cl-user)))
            (load-fasl-stream in path)))))))

(defun load-fasl-stream (in path)
  "What LOAD does with a fasl stream, minus its questions to the file system (the header
check seeks, *LOAD-TRUENAME* resolves every folder of the name): the same bindings, then
SBCL's own fasl loader. LOAD itself where this SBCL names those parts otherwise."
  (let ((loader (find-symbol "LOAD-AS-FASL" "SB-FASL"))
        (bindings (mapcar (lambda (name) (find-symbol (car name) (cdr name)))
                          '(("*POLICY*" . "SB-C") ("*HANDLED-CONDITIONS*" . "SB-C")))))
    (if (and loader (fboundp loader) (every (lambda (s) (and s (boundp s))) bindings))
        (progv (list* '*readtable* '*load-pathname* '*load-truename* bindings)
            (list* *readtable* (pathname path) (pathname path)
                   (mapcar #'symbol-value bindings))
          (funcall loader in nil nil))
        (load in))))

(defun load-agent (name)
  "Load the agent into this process (a child of the zygote) and find its function."
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

(defvar *reload-failure* nil "Why this game's fresh load failed: every call says so.")

(defun start-game (seed per-turn payoffs name)
  "A fresh agent: seeded first, so even its load-time (random ...) replays with the game."
  (setf *hist* '() *mine* 0 *theirs* 0 *per-turn* per-turn *payoffs* payoffs
        *reload-failure* nil
        *random-state* (sb-ext:seed-random-state seed))
  (handler-case (load-agent name)
    (load-failure (c)
      (setf *reload-failure* (format nil "reloading failed: ~A" (load-failure-text c))))
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
      (values nil (format nil "returned ~A, not a list of ~D move~:P"
                          (describe-answer answer) *per-turn*))))
  (unless (= (length answer) *per-turn*)
    (return-from answer-moves
      (values nil (format nil "returned ~D move~:P (~A), expected ~D"
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
        (score (list *mine* *theirs*))
        (erring nil))
    (handler-case
        ;; no timer here: the monitor's deadline counts the call's own time, not the time
        ;; its process waited for a CPU (harness/isolation/own_time.py), and ends the game's process
        (let ((answer (noting-erring-function (erring)
                        (as-agent (funcall *function* hist score)))))
          (multiple-value-bind (moves note) (answer-moves answer)
            (cond ((null moves) (reply "INVALID" (one-line note)))
                  (note (reply "MOVES" moves "WARN" (one-line note)))
                  (t (reply "MOVES" moves)))))
      (serious-condition (c)
        (reply "ERROR" (describe-condition c erring))))))

;;; -- the loop -----------------------------------------------------------------------------

(defun words (line)
  (loop with start = 0
        for space = (position #\Space line :start start)
        for word = (subseq line start space)
        unless (string= word "") collect word
        while space
        do (setf start (1+ space))))

;;; -- the zygote (harness/isolation/process_tree.py does the same for Python and Hy) ------------------------
;;; This process never runs agent code: a throwaway child compiles and loads the agent once,
;;; and each game is played by a child forked in advance, which loads the compiled agent
;;; fresh and dies at the game's end with every process it started. The game's child reads
;;; and answers the game channel itself; the zygote serves the control channel (DESIGN.md).

(defmacro c-call (name result &rest typed-arguments)
  "Call the C function NAME: (c-call \"kill\" int (int pid) (int signal))."
  `(sb-alien:alien-funcall
    (sb-alien:extern-alien ,name (function ,result ,@(mapcar #'first typed-arguments)))
    ,@(mapcar #'second typed-arguments)))

(defconstant +sigkill+ 9)
(defvar *child* nil "The next or current game's child: (pid pidfd), or nil.")
(defvar *serial* 1 "The game the next child waits for (the monitor counts them too).")

(defun getpid () (sb-unix:unix-getpid))

(defun prctl (option value)
  (c-call "prctl" sb-alien:int (sb-alien:int option) (sb-alien:unsigned-long value)
          (sb-alien:unsigned-long 0) (sb-alien:unsigned-long 0) (sb-alien:unsigned-long 0)))

(defun become-zygote ()
  "Orphans of the agent's processes come back here (PR_SET_CHILD_SUBREAPER), and no
process of the same user may ptrace this one or read its memory (not dumpable)."
  (prctl 36 1)
  (prctl 4 0))

(defun task-count ()
  "This process's threads: field 20 of /proc/self/stat (DIRECTORY of /proc/self/task/ cost
the zygote 30 us a game), or by that DIRECTORY if the file cannot be read."
  (let ((fd (sb-unix:unix-open "/proc/self/stat" sb-unix:o_rdonly 0))
        (buffer (make-array 1024 :element-type '(unsigned-byte 8))))
    (declare (dynamic-extent buffer))
    (or (when fd
          (let ((got (unwind-protect
                          (sb-sys:with-pinned-objects (buffer)
                            (sb-unix:unix-read fd (sb-sys:vector-sap buffer) (length buffer)))
                       (sb-unix:unix-close fd))))
            ;; pid (comm) state ppid ...: the name may hold anything, so count from its
            ;; last parenthesis; num_threads is the 18th field after it
            (let ((at (and got (position 41 buffer :end got :from-end t))))
              (when at
                (loop repeat 18
                      while at
                      do (setf at (position 32 buffer :start (1+ at) :end got)))
                (when (and at (< (1+ at) got) (<= 48 (aref buffer (1+ at)) 57))
                  (loop with count = 0
                        for i from (1+ at) below got
                        while (<= 48 (aref buffer i) 57)
                        do (setf count (+ (* 10 count) (- (aref buffer i) 48)))
                        finally (return count)))))))
        (length (directory "/proc/self/task/*/" :resolve-symlinks nil)))))

(defun single-threaded ()
  "Stop SBCL's finalizer thread: fork(2) and a new user namespace need one thread. A GC
may start it again at any time (streams have finalizers), and one caught while starting
cannot be stopped yet (SBCL's AVER): then a moment later."
  (loop repeat 1000
        while (and (fboundp 'sb-impl::finalizer-thread-stop) (> (task-count) 1))
        do (handler-case (funcall 'sb-impl::finalizer-thread-stop)
             (serious-condition () (sleep 0.001)))))

(defun fork ()
  "fork(2), from a single-threaded image."
  (finish-output *agent-output*)
  (single-threaded)
  (c-call "fork" sb-alien:int))

(defun wait-for (pid)
  "waitpid(PID) (-1: any child): (values pid status), pid -1 when there is no child."
  (sb-alien:with-alien ((status sb-alien:int 0))
    (let ((found (c-call "waitpid" sb-alien:int (sb-alien:int pid)
                         ((* sb-alien:int) (sb-alien:addr status)) (sb-alien:int 0))))
      (values found status))))

(defun descendants ()
  "Every process below this one, through /proc/PID/task/TID/children."
  (let ((found '()) (todo (list "self")))
    (loop while todo
          do (let ((pid (pop todo)))
               (dolist (task (directory (format nil "/proc/~A/task/*/" pid)
                                        :resolve-symlinks nil))
                 (with-open-file (in (merge-pathnames "children" task) :if-does-not-exist nil)
                   (when in
                     (loop for child = (read-line in nil nil) while child
                           do (dolist (word (words child))
                                (let ((child-pid (parse-integer word :junk-allowed t)))
                                  (when child-pid
                                    (push child-pid found)
                                    (push child-pid todo))))))))))
    found))

;;; -- a game's world, new for every game (harness/isolation/world.py says why and how) ---------------

(defconstant +clone-newns+ #x00020000)
(defconstant +clone-newipc+ #x08000000)
(defconstant +clone-newuser+ #x10000000)
(defconstant +clone-newpid+ #x20000000)
(defconstant +agent-id+ 1000 "The agent's uid and gid in its namespaces (harness/isolation/world.py).")
(defparameter *game-mounts*          ; (target type flags options): MS_NOSUID|MS_NODEV, RDONLY
  '(("/tmp" "tmpfs" 6 "size=67108864,mode=1777")
    ("/dev/shm" "tmpfs" 6 "size=4194304,mode=1777")
    ("/proc" "tmpfs" 7 "size=4096,mode=555")
    ("/sys" "tmpfs" 7 "size=4096,mode=555")     ; where there is one: the cgroup's counters
    ("/dev/pts" "tmpfs" 7 "size=4096,mode=555")))   ; no terminal: its folder keeps times

(defun write-proc-file (path text)
  (let ((fd (sb-unix:unix-open path sb-unix:o_wronly 0))
        (bytes (sb-ext:string-to-octets text :external-format :latin-1)))
    (unless (and fd (= (or (sb-unix:unix-write fd bytes 0 (length bytes)) -1) (length bytes)))
      (error "cannot write ~A" path))
    (sb-unix:unix-close fd)))

(defun checked (result what &optional target)
  "Nothing if the call succeeded; else an error naming WHAT (and TARGET), made only then: a
game's process starts cold, and printing is the slowest thing it could do before the game."
  (unless (zerop result)
    (error "~A~@[ ~A~]: ~A" what target (sb-int:strerror))))

(defun enter-world ()
  "harness/isolation/world.py's enter: a user namespace of this host's own and the zygote as PID 1 of
a new PID namespace; this process waits and ends as the zygote ends. Nil where the kernel
allows no user namespace (games are then plain forks)."
  (let ((uid (c-call "geteuid" sb-alien:int)) (gid (c-call "getegid" sb-alien:int)))
    (single-threaded)
    (unless (zerop (c-call "unshare" sb-alien:int
                           (sb-alien:int (logior +clone-newuser+ +clone-newpid+))))
      (return-from enter-world nil))
    (write-proc-file "/proc/self/setgroups" "deny")
    (write-proc-file "/proc/self/uid_map" (format nil "~D ~D 1" +agent-id+ uid))
    (write-proc-file "/proc/self/gid_map" (format nil "~D ~D 1" +agent-id+ gid))
    (let ((zygote (fork)))
      (unless (zerop zygote)
        (close-monitor-pipes)
        (dolist (fd *game-fds*) (sb-unix:unix-close fd))
        (loop (multiple-value-bind (found status) (wait-for zygote)
                (when (= found zygote) (end-like status))))))
    (prctl 1 +sigkill+)                     ; PR_SET_PDEATHSIG: die with the waiting process
    (checked (c-call "unshare" sb-alien:int (sb-alien:int +clone-newipc+)) "unshare")
    (setf *pid-namespace* (sb-unix:unix-open "/proc/self/ns/pid" sb-unix:o_rdonly 0))))

(defun world-fork ()
  "fork(2), the child in a PID namespace of its own (its PID 1) where this host has a world."
  (when *pid-namespace*
    (checked (c-call "setns" sb-alien:int (sb-alien:int *pid-namespace*)
                     (sb-alien:int +clone-newpid+)) "setns")
    (checked (c-call "unshare" sb-alien:int (sb-alien:int +clone-newpid+)) "unshare"))
  (fork))

(defvar *no-capabilities* nil "capset(2)'s header and data, made once in the zygote.")

(defun build-world ()
  "In a game's child, before any agent code: its own mounts, a new /tmp and /dev/shm,
/proc, /sys and /dev/pts covered, and no capability left."
  (sb-unix:unix-close *pid-namespace*)
  (checked (c-call "unshare" sb-alien:int (sb-alien:int +clone-newns+)) "unshare")
  (checked (c-call "mount" sb-alien:int (sb-alien:c-string "none") (sb-alien:c-string "/")
                   (sb-alien:c-string nil) (sb-alien:unsigned-long #x44000)   ; MS_REC|MS_PRIVATE
                   (sb-alien:unsigned-long 0))
           "mount")
  (loop for (target type flags options) in *game-mounts*
        when (folder-p target)
          do (checked (c-call "mount" sb-alien:int (sb-alien:c-string type)
                              (sb-alien:c-string target) (sb-alien:c-string type)
                              (sb-alien:unsigned-long flags) (sb-alien:c-string options))
                      "mount" target))
  (destructuring-bind (header . data) *no-capabilities*
    (checked (c-call "capset" sb-alien:int (sb-alien:unsigned-long header)
                     (sb-alien:unsigned-long data))
             "capset")))

(defun prepare-capset ()
  (let ((header (sb-alien:make-alien (sb-alien:unsigned 32) 2))
        (data (sb-alien:make-alien (sb-alien:unsigned 32) 6)))
    (setf (sb-alien:deref header 0) #x20080522 (sb-alien:deref header 1) 0)  ; version 3
    (dotimes (i 6) (setf (sb-alien:deref data i) 0))
    (setf *no-capabilities* (cons (sb-sys:sap-int (sb-alien:alien-sap header))
                                  (sb-sys:sap-int (sb-alien:alien-sap data))))))

(defun folder-p (path)
  "A real folder (lstat: a link to a folder is not one)."
  (multiple-value-bind (ok dev ino mode) (sb-unix:unix-lstat path)
    (declare (ignore dev ino))
    (and ok (= (logand mode #o170000) #o040000))))

(defun kill-everything-else ()
  "Kill every process of every game and reap them all; returns when this process has no
child left. With a world this host is PID 1 of its namespace: -1 is all of them but itself."
  (loop
    (if *pid-namespace*
        (sb-unix:unix-kill -1 +sigkill+)
        (dolist (pid (descendants)) (sb-unix:unix-kill pid +sigkill+)))
    (when (minusp (wait-for -1)) (return))))

(defun clean-up ()
  (kill-everything-else))

;;; Every process that runs agent code runs under the game's seccomp filter (harness/isolation/seccomp.py:
;;; PDH_GAME_FILTER, the classic-BPF program in hex), installed once its world is built.
(defvar *game-filter* nil "(prctl syscall-number sock_fprog) prepared in the zygote, or nil.")

(defun prepare-game-filter ()
  (let ((hex (sb-ext:posix-getenv "PDH_GAME_FILTER")))
    (forget-environment-variable "PDH_GAME_FILTER")
    (when (and hex (plusp (length hex)))
      (let* ((size (floor (length hex) 2))
             (code (sb-alien:make-alien (sb-alien:unsigned 8) size))
             (fprog (sb-alien:make-alien (sb-alien:unsigned 8) 16)))
        (dotimes (i size)
          (setf (sb-alien:deref code i)
                (parse-integer hex :start (* 2 i) :end (+ 2 (* 2 i)) :radix 16)))
        ;; struct sock_fprog { unsigned short len; struct sock_filter *filter; }
        (setf (sb-sys:sap-ref-16 (sb-alien:alien-sap fprog) 0) (floor size 8)
              (sb-sys:sap-ref-sap (sb-alien:alien-sap fprog) 8) (sb-alien:alien-sap code))
        (setf *game-filter* (sb-sys:sap-int (sb-alien:alien-sap fprog)))))))

(defun install-game-filter ()
  "seccomp(SET_MODE_FILTER, TSYNC) after NO_NEW_PRIVS; an error (the child dies before any
agent code runs) if the kernel refuses."
  (when *game-filter*
    (unless (and (zerop (c-call "prctl" sb-alien:int (sb-alien:int 38) (sb-alien:unsigned-long 1)
                                (sb-alien:unsigned-long 0) (sb-alien:unsigned-long 0)
                                (sb-alien:unsigned-long 0)))
                 (zerop (c-call "syscall" sb-alien:long
                                (sb-alien:long (if (search "ARM" (string-upcase (machine-type)))
                                                   277 317))
                                (sb-alien:unsigned-long 1) (sb-alien:unsigned-long 1)
                                (sb-alien:unsigned-long *game-filter*))))
      (error "the kernel refused the game's seccomp filter"))))

;;; The compiled agent lives in the zygote's memory (a game's child cannot change it): each
;;; game's child writes its own copy to a private file, loads it and deletes it.

(defun exit-now (code)
  "_exit(2): no unwinding, no exit hooks, no streams flushed (a forked child's are not its own)."
  (c-call "_exit" sb-alien:void (sb-alien:int code)))

(defun end-like (status)
  "Exit as a child ended (its status or its signal), so the monitor reports the same."
  (finish-output *agent-output*)
  (let ((signal (logand status #x7f)))
    (if (zerop signal)
        (exit-now (ldb (byte 8 8) status))
        (progn (c-call "signal" sb-alien:long (sb-alien:int signal) (sb-alien:long 0))
               (sb-unix:unix-kill (getpid) signal)
               (exit-now (+ 128 signal))))))

(defun in-child (work)
  "Run WORK in a just-forked child, away from the monitor's pipes; never return."
  (handler-case
      (progn (prctl 1 +sigkill+)            ; PR_SET_PDEATHSIG: die with the zygote
             (close-monitor-pipes)
             (when *pid-namespace* (build-world))
             (install-game-filter)
             (funcall work)
             (finish-output *agent-output*)
             (exit-now 0))
    (serious-condition () (exit-now 70))))

(defun close-monitor-pipes ()
  (dolist (fd *monitor-fds*) (sb-unix:unix-close fd)))

;;; -- preparing the agent, once -------------------------------------------------------------

(defun prepare (file name)
  "In a throwaway child: compile FILE and load it once. The zygote gets the fasl's bytes
(then this child and all it started die), or sends LOADERR and exits."
  (multiple-value-bind (read-fd write-fd) (sb-unix:unix-pipe)
    (let ((pid (world-fork)))
      (when (zerop pid)
        (sb-unix:unix-close read-fd)
        (dolist (fd *game-fds*) (sb-unix:unix-close fd))   ; it plays no game
        (in-child (lambda () (report-preparation file name write-fd))))
      (sb-unix:unix-close write-fd)
      (let ((bytes (with-open-stream (in (sb-sys:make-fd-stream read-fd :input t
                                                                :element-type '(unsigned-byte 8)))
                     (read-all in))))
        (multiple-value-bind (found status) (wait-for pid)
          (declare (ignore found))
          (clean-up)
          (cond ((and (plusp (length bytes)) (= (aref bytes 0) (char-code #\C)))
                 (subseq bytes 1))
                ((and (plusp (length bytes)) (= (aref bytes 0) (char-code #\E)))
                 (reply "LOADERR" (one-line (sb-ext:octets-to-string
                                             bytes :start 1 :external-format :utf-8)))
                 (exit-now 1))
                (t (end-like status))))))))

(defun read-all (in)
  (let ((bytes (make-array 0 :element-type '(unsigned-byte 8) :adjustable t :fill-pointer 0))
        (chunk (make-array 65536 :element-type '(unsigned-byte 8))))
    (loop for got = (read-sequence chunk in)
          while (plusp got)
          do (loop for i below got do (vector-push-extend (aref chunk i) bytes)))
    (coerce bytes '(simple-array (unsigned-byte 8) (*)))))

(defun report-preparation (file name fd)
  (let* ((*shown-file* file)
         (message
          (handler-case
              (let ((bytes (compile-agent file)))
                (setf *fasl-bytes* bytes)
                (load-agent name)
                (concatenate '(vector (unsigned-byte 8)) #(67) bytes))      ; C
            (load-failure (c)
              (concatenate '(vector (unsigned-byte 8)) #(69)                 ; E
                           (sb-ext:string-to-octets
                            (located (load-failure-text c))
                            :external-format :utf-8)))
            (serious-condition (c)
              (concatenate '(vector (unsigned-byte 8)) #(69)
                           (sb-ext:string-to-octets
                            (located (describe-condition c))
                            :external-format :utf-8))))))
    (with-open-stream (out (sb-sys:make-fd-stream fd :output t
                                                  :element-type '(unsigned-byte 8)))
      (write-sequence message out))))

;;; -- the games -------------------------------------------------------------------------------

(defun pidfd-open (pid)
  (c-call "syscall" sb-alien:long (sb-alien:long 434) (sb-alien:long pid) (sb-alien:long 0)))

(defvar *pollfds* nil
  "Two struct pollfd, made once, as a system-area pointer: SB-ALIEN:DEREF of an alien whose
type is known only at run time parsed the type on every call (30 KB consed a game, which
grew the zygote by as much, page by page, for every later fork to copy).")

(defun poll-input (fd-a fd-b)
  "poll(2) FD-A and FD-B (-1: none) for input until one is ready: (values a-ready b-ready)."
  (let ((fds (or *pollfds*
                 (setf *pollfds* (sb-alien:alien-sap
                                  (sb-alien:make-alien (sb-alien:unsigned 8) 16))))))
    ;; struct pollfd { int fd; short events; short revents; }: events POLLIN, revents 0
    (setf (sb-sys:signed-sap-ref-32 fds 0) fd-a (sb-sys:sap-ref-16 fds 4) 1
          (sb-sys:sap-ref-16 fds 6) 0
          (sb-sys:signed-sap-ref-32 fds 8) fd-b (sb-sys:sap-ref-16 fds 12) 1
          (sb-sys:sap-ref-16 fds 14) 0)
    (loop until (plusp (c-call "poll" sb-alien:int
                               (sb-alien:unsigned-long (sb-sys:sap-int fds))
                               (sb-alien:unsigned-long 2) (sb-alien:int -1))))
    (values (/= 0 (sb-sys:sap-ref-16 fds 6))
            (/= 0 (sb-sys:sap-ref-16 fds 14)))))

;;; A game's requests are read with read(2) into a buffer of the game's own: an fd-stream
;;; polls before every read, which is two more system calls a turn.
(defvar *request-buffer*)
(defvar *request-start*)
(defvar *request-end*)

(defun read-request (fd)
  "The next line from FD without its newline (Latin-1, as the control channel reads it),
or nil once FD ends (a last line without a newline is still a line)."
  (loop
    (let ((newline (position 10 *request-buffer* :start *request-start* :end *request-end*)))
      (when newline
        (return (prog1 (request-line *request-start* newline)
                  (setf *request-start* (1+ newline))))))
    (when (plusp *request-start*)      ; keep the line begun, make room after it
      (replace *request-buffer* *request-buffer* :start2 *request-start* :end2 *request-end*)
      (decf *request-end* *request-start*)
      (setf *request-start* 0))
    (when (= *request-end* (length *request-buffer*))
      (setf *request-buffer* (replace (make-array (* 2 (length *request-buffer*))
                                                  :element-type '(unsigned-byte 8))
                                      *request-buffer*)))
    (multiple-value-bind (got errno)
        (let ((buffer *request-buffer*))
          (sb-sys:with-pinned-objects (buffer)
            (sb-unix:unix-read fd (sb-sys:sap+ (sb-sys:vector-sap buffer) *request-end*)
                               (- (length buffer) *request-end*))))
      (cond ((and got (plusp got)) (incf *request-end* got))
            ((and (null got) (eql errno sb-unix:eintr)))
            ((and (null got) (eql errno sb-unix:ewouldblock)) (poll-input fd -1))
            (t (return (when (< *request-start* *request-end*)
                         (prog1 (request-line *request-start* *request-end*)
                           (setf *request-start* *request-end*)))))))))

(defun request-line (start end)
  (let ((line (make-string (- end start))))
    (loop for i from start below end
          for j from 0
          do (setf (char line j) (code-char (aref *request-buffer* i))))
    line))

(defun spawn (name)
  "Fork the next game's child: it waits for its GAME with nothing of the agent loaded."
  (let* ((game (princ-to-string *serial*))   ; printed here: a child starts cold
         (*game-fasl-path* (scratch-fasl-name game))
         (pid (world-fork)))
    (when (zerop pid)
      (in-child (lambda () (play game name))))
    (setf *child* (list pid (pidfd-open pid)))))

(defun play (game name)
  "In a game's child: wait for its GAME (the serial GAME, a string), then a fresh agent
serves the game's turns. Lines before it were meant for a game whose child died first."
  (destructuring-bind (requests-fd replies-fd) *game-fds*
    (setf *requests* nil
          *replies* (sb-sys:make-fd-stream replies-fd :output t :buffering :full
                                                      :external-format :utf-8))
    (let ((*request-buffer* (make-array 4096 :element-type '(unsigned-byte 8)))
          (*request-start* 0)
          (*request-end* 0))
      (loop with started = nil
            for line = (read-request requests-fd)
            while line
            do (let* ((words (words line)) (command (first words)))
                 (cond ((null command))
                       ((not started)
                        (when (and (string= command "GAME") (equal (second words) game))
                          (destructuring-bind (seed per-turn tt r p s)
                              (mapcar #'parse-integer (cddr words))
                            (start-game seed per-turn (list tt r p s) name))
                          (setf started t)))
                       ((string= command "TURN")
                        (when (= (length words) 3) (record-turn (second words) (third words)))
                        (call-agent))
                       ((string= command "SYNC") (record-turn (second words) (third words)))))))))

(defun forget-child ()
  "The child's pid, its pidfd closed; nil if there is none."
  (when *child*
    (destructuring-bind (pid pidfd) *child*
      (sb-unix:unix-close pidfd)
      (setf *child* nil)
      pid)))

(defun child-died ()
  "The game's child ended before its END: this game is over for the agent. Said before the
child is reaped: until then the monitor can see it dead in /proc, and once it is gone the
monitor has this word (harness/isolation/own_time.py), however long a crowded machine keeps
this process from a CPU in between."
  (let ((told (ended-status (second *child*))))
    (when told (reply "DIED" (princ-to-string told)))
    (multiple-value-bind (found status) (wait-for (forget-child))
      (declare (ignore found))
      (clean-up)
      (unless told   ; a kernel that cannot tell it unreaped (before Linux 5.4)
        (reply "DIED" (princ-to-string status))))))

(defun ended-status (pidfd)
  "The wait(2) status of the ended child PIDFD names, which stays unreaped: waitid(P_PIDFD,
WEXITED|WNOWAIT), whose siginfo_t holds si_code at byte 8 and si_status at byte 24; nil
where the kernel cannot say (P_PIDFD came with Linux 5.4)."
  (sb-alien:with-alien ((info (array sb-alien:int 32)))
    (if (minusp (c-call "waitid" sb-alien:int (sb-alien:int 3) (sb-alien:int pidfd)
                        ((* sb-alien:int) (sb-alien:addr (sb-alien:deref info 0)))
                        (sb-alien:int (logior 4 #x01000000))))
        nil
        (let ((code (sb-alien:deref info 2)) (value (sb-alien:deref info 6)))
          (case code
            (1 (ash (logand value #xff) 8))          ; CLD_EXITED
            (3 (logior value #x80))                  ; CLD_DUMPED
            (t value))))))                           ; CLD_KILLED

(defun renew (name)
  "At END: the game's child and all it started die, the next child is forked (before
ENDED: its cost is never part of an agent's first call), and ENDED says so."
  (forget-child)
  (clean-up)
  (incf *serial*)
  (spawn name)
  (reply "ENDED"))

(defun serve (name)
  "READY once the first game's child is forked (its cost is never part of an agent's first
call), then END -> ENDED until QUIT."
  (spawn name)
  (reply "READY")
  (let ((control (first *monitor-fds*)))
    (loop
      (let ((request-ready (listen *requests*)))
        (unless request-ready
          (multiple-value-bind (control-ready child-ready)
              (poll-input control (if *child* (second *child*) -1))
            (when (and child-ready *child*) (child-died))
            (setf request-ready control-ready)))
        (when request-ready
          (let* ((line (read-line *requests* nil nil))
                 (command (and line (first (words line)))))
            (cond ((or (null line) (equal command "QUIT")) (return))
                  ((equal command "END") (renew name))))))))
  (clean-up))

(defun game-channel ()
  "The game channel's two descriptors the monitor passed down (PDH_GAME_FDS: requests,
replies), closed on exec; nil if it did not."
  (let* ((given (or (sb-ext:posix-getenv "PDH_GAME_FDS") ""))
         (comma (position #\, given))
         (fds (and comma (list (parse-integer given :end comma :junk-allowed t)
                               (parse-integer given :start (1+ comma) :junk-allowed t)))))
    (forget-environment-variable "PDH_GAME_FDS")
    (when (and fds (every (lambda (fd) (and fd (sb-unix:unix-fstat fd))) fds))
      (dolist (fd fds) (c-call "fcntl" sb-alien:int (sb-alien:int fd) (sb-alien:int 2) (sb-alien:int 1)))
      fds)))

(defun arguments ()
  "FILE and NAME: SBCL leaves only what follows --end-toplevel-options after the program."
  (last sb-ext:*posix-argv* 2))

(defun main ()
  (setf *token* (or (sb-ext:posix-getenv "PDH_TOKEN") ""))
  (forget-environment-variable "PDH_TOKEN")
  (take-protocol-streams)
  (setf *game-fds* (game-channel))
  (unless *game-fds*
    (reply "LOADERR" "no game channel: PDH_GAME_FDS does not name two open descriptors")
    (exit-now 1))
  (handler-case (read-given-source (first (arguments)))
    (serious-condition (c)
      (reply "LOADERR" (one-line (format nil "~A: cannot read: ~A" (first (arguments))
                                         (describe-condition c))))
      (exit-now 1)))
  (let* ((required (equal (sb-ext:posix-getenv "PDH_WORLD_REQUIRED") "1"))
         (wanted (not (equal (sb-ext:posix-getenv "PDH_WORLD_OFF") "1")))
         (world (handler-case (and wanted (enter-world))
                 (serious-condition (c)
                   (reply "LOADERR" (one-line (format nil "cannot make a game's namespaces: ~A"
                                                      (describe-condition c))))
                   (exit-now 1)))))
    (forget-environment-variable "PDH_WORLD_REQUIRED")
    (forget-environment-variable "PDH_WORLD_OFF")
    (when (and required wanted (null world))
      (reply "LOADERR" "cannot make a game's namespaces: the kernel allows no user namespace here")
      (exit-now 1)))
  (become-zygote)
  (prepare-game-filter)
  (prepare-capset)
  (setf *packages-at-start* (list-all-packages)
        *scratch-random* (make-random-state t))
  (destructuring-bind (file name) (arguments)
    (setf *fasl-bytes* (prepare file name))
    (serve name))
  (exit-now 0))
