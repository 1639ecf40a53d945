;;;; Loading the agent: its file compiled and loaded, and what a compile error says.
;;;; Part of the SBCL agent host (lisp_bridge/sbcl_host.lisp says what it is); compiled
;;;; and loaded after the parts before it (lisp_bridge/sbcl.py, HOST_SOURCES).

(in-package :pdharness-host)

;;; -- loading ------------------------------------------------------------------------------


(defvar *fasl-bytes* nil "The agent's compiled file, in the zygote's memory.")
(defvar *agent-folder* nil
  "A bundle's agent: its folder (its bundle's snapshot, PDH_AGENT_FOLDER), a string; nil for
a single file. Every process that runs agent code makes it the current folder and
*DEFAULT-PATHNAME-DEFAULTS* (relative (load \"helpers.lisp\") finds the bundle's files).")
(defvar *agent-folder-pathname* nil "*agent-folder* as a pathname, parsed once in the zygote.")
(defvar *agent-truename* nil
  "A bundle's agent file as *LOAD-TRUENAME* and *LOAD-PATHNAME* show it while it loads
(the fasl loaded is a scratch copy), parsed once in the zygote; nil for a single file.")
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
                           ;; a bundle's file may (load "helpers.lisp") what it calls:
                           ;; defined when it loads, not when it compiles
                           (let ((text (one-line (princ-to-string w) 300)))
                             (if (and (search "undefined function" text) (not *agent-folder*))
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
            (list* *readtable* (or *agent-truename* (pathname path))
                   (or *agent-truename* (pathname path))
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
