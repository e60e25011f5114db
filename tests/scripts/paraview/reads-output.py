"""ParaView reads an output series of Strata as written: run by pvbatch.

    pvbatch reads-output.py SERIES.xmf STEPS ARRAY[:COMPONENTS] ...

Checks that ParaView's XDMF reader finds STEPS time steps in the series and,
at each, every named array (cell or point data) with its number of
components, and that every value equals the HDF5 dataset the run wrote
(read with h5dump at 17 digits; a vector against the three datasets its
XDMF joins).
Prints one line per array and exits 1 at the first difference.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

from paraview import servermanager
from paraview.simple import UpdatePipeline, XDMFReader


def dataset(h5_file, name):
    """The values of dataset `name`, in file order."""
    text = subprocess.run(["h5dump", "-m", "%.17g", "-y", "-w", "0", "-d", "/" + name, h5_file],
                          check=True, capture_output=True, text=True).stdout
    body = text.split("DATA {", 1)[1].split("}", 1)[0]
    return [float(v) for v in body.replace(",", " ").split()]


def steps_of(series):
    """Each time step of an XDMF series: its HDF5 file and, per attribute, the
    datasets it reads (three for a vector)."""
    steps = []
    for grid in ElementTree.parse(series).getroot().iter("Grid"):
        if grid.get("GridType") != "Uniform":
            continue
        datasets = {}
        for attribute in grid.iter("Attribute"):
            items = [i.text.strip() for i in attribute.iter("DataItem") if i.get("Format") == "HDF"]
            datasets[attribute.get("Name")] = [i.split(":")[1].lstrip("/") for i in items]
        h5 = items[0].split(":")[0]
        steps.append((os.path.join(os.path.dirname(series), h5), datasets))
    return steps


def main():
    series, steps, wanted = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    reader = XDMFReader(FileNames=[series])
    times = list(reader.TimestepValues) if steps > 1 else [None]
    if len(times) != steps:
        sys.exit("%s: ParaView finds %d time steps, the run wrote %d" % (series, len(times), steps))
    for time, (h5, datasets) in zip(times, steps_of(series)):
        UpdatePipeline(time=time, proxy=reader) if time is not None else reader.UpdatePipeline()
        data = servermanager.Fetch(reader)
        for spec in wanted:
            name, _, components = spec.partition(":")
            components = int(components or 1)
            array = data.GetCellData().GetArray(name) or data.GetPointData().GetArray(name)
            if array is None:
                sys.exit("%s: no array '%s' at time %s" % (series, name, time))
            if array.GetNumberOfComponents() != components:
                sys.exit("%s: '%s' has %d components, not %d" % (series, name, array.GetNumberOfComponents(),
                                                                 components))
            for c, values in enumerate(dataset(h5, d) for d in datasets[name]):
                if array.GetNumberOfTuples() != len(values):
                    sys.exit("%s: '%s' holds %d values, %s %d" % (series, name, array.GetNumberOfTuples(), h5,
                                                                   len(values)))
                for n, value in enumerate(values):
                    if array.GetComponent(n, c) != value:
                        sys.exit("%s: '%s' component %d value %d: ParaView %r, the file %r" %
                                 (series, name, c, n, array.GetComponent(n, c), value))
            print("%s at t = %s: %s, %d values x %d, equal to %s" % (os.path.basename(series), time, name,
                                                                     array.GetNumberOfTuples(), components,
                                                                     os.path.basename(h5)))


main()
