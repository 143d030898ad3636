import json,sys
fc=lambda n,a: {"kind":"function","name":n,"arguments":json.dumps(a)}
if sys.argv[1]=="flood":
    s=[fc("exec_command",{"cmd":'head -c 1000000000 /dev/zero | tr "\\0" x; echo END',"yield_time_ms":30000})]+[fc("write_stdin",{"session_id":1000,"chars":"","yield_time_ms":30000})]*2
elif sys.argv[1]=="ptyflood":
    s=[fc("exec_command",{"cmd":'head -c 1000000000 /dev/zero | tr "\\0" x; echo END',"tty":True,"yield_time_ms":30000})]+[fc("write_stdin",{"session_id":1000,"chars":"","yield_time_ms":30000})]*2
else:
    s=[fc("exec_command",{"cmd":"yes busy session output line","yield_time_ms":250})]*10+[fc("write_stdin",{"session_id":1000,"chars":"","yield_time_ms":8000})]
s.append({"kind":"text","text":"done"})
print(json.dumps(s))
